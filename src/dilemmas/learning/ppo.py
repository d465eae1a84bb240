"""IPPO and MAPPO in JAX on a game's functional environment (docs/learning.md, "Deep learners").

Proximal policy optimisation (Schulman et al. 2017) for every learning seat at once, in the
manner of JaxMARL's and PureJaxRL's single-file baselines: the environment
(``dilemmas.functional_env``), the policy and the update compiled together, ``vmap``-ped over
``envs`` parallel episodes and over training seeds, and ``lax.scan``-ned over time and updates.

* **IPPO** (independent PPO; de Witt et al. 2020): one actor and one critic shared by the
  learning seats (parameter sharing, ``share``), each reading the seat's own observation;
  or, with ``share`` false, each seat its own actor, critic and Adam (and gradient clip),
  moved only by its own transitions (each seat's loss its own, advantages normalised per
  seat), so that seats with other rewards (``rewards``) learn as separate agents; each of
  ``SEAT_SETTINGS`` (``learning_rate``, ``discount``, ``gae_lambda``, ``clip``, ``entropy``,
  ``value``, ``max_grad_norm``) may then be a list of one per learning seat, that seat's own.
  The batch's shape (``envs``, ``steps``, ``epochs``, ``minibatches``, ``anneal``) is one
  for all: every seat trains in one compiled program.
* **MAPPO** (Yu et al. 2022): the same actor; the critic reads the environment's centralised
  ``state`` (``FunctionalEnv.state_at``) with the seat's one-hot index. The actor and the
  critic have an Adam and a gradient clip each (as JaxMARL's MAPPO), so the critic's loss
  and its weight ``value`` do not scale the actor's steps; IPPO's pair shares one.

Networks (equinox): ``mlp`` -- ``layers`` dense layers of ``hidden`` units and a linear head;
``gru`` -- the same layers, then a GRU cell of ``hidden`` units, then the head. A recurrent
network's memory is reset to zeros at the first decision of every episode, in rollouts and
when the update replays them. The actor's logits of the actions the mask forbids are set to
``-1e9``, so it never samples them and their probability does not enter the loss.

One update: every parallel episode plays ``steps`` decisions (a Bucket Brigade round is two
decisions) with actions sampled from the actor; the advantages are generalised advantage
estimates (Schulman et al. 2016) with ``discount`` and ``gae_lambda`` per decision, an episode's
end (by the rules or by ``max_steps``) closing its returns; then ``epochs`` passes over the
batch in ``minibatches`` (of transitions for ``mlp``, of whole per-seat sequences for ``gru``),
each an Adam step (optax; gradients clipped to a global norm of ``max_grad_norm``; the
learning rate falls linearly to zero over the training when ``anneal``) on the clipped
surrogate loss: ``actor + value * critic - entropy * H``, the advantages normalised in each
minibatch, the critic's loss the larger of the plain and the clipped squared error.

Value normalisation (``value_norm``, on by default; Yu et al. 2022's ValueNorm): the critic
predicts each seat's return in units of that seat's running statistics of its targets, a
mean ``m`` and a standard deviation ``s`` (exponentially weighted over updates with
``VALUE_DECAY``, debiased as Adam's moments are), so that ``V = m + s * output`` (``V = 0`` in
the first update, before any target). Each update computes the advantages with ``V``, folds
its targets into the statistics, and fits the critic to ``(target - m) / s``, the value clip
``clip`` applying in those units: a game whose rewards are all multiplied by a constant
trains the same networks (up to rounding). Without it ``m = 0`` and ``s = 1``: the critic
predicts returns in the rewards' units.

Rewards (``reward``) -- what each learning seat maximises (``dilemmas.learning.rewards``):
``own``, ``team`` (where the game's rules define a team reward), ``mean``, ``prosocial`` or
``inequity_aversion``, with their weights one number or one per learning seat. Each update
reports the return of the reward trained on (``objective_return``) beside the seats' own
(``learner_return``). Scripted background seats play their own rules inside the environment.

Frozen co-players (``CoPlayers``; PSRO's best response, docs/game-theory.md): some of the
environment's agents are played by fixed policies instead of the learners: network
policies, or scripted behaviours (by name). Each co-player seat draws, at every episode's
start, one of the co-players by their weights (a meta-strategy) and plays it for the whole
episode: a network greedy or sampled as the population's ``play`` says, its actions
replacing the learner's; a scripted behaviour as a stand-in of the environment
(``dilemmas.envs.functional``, "Stand-ins"), deciding for the seat by its own rules. A
co-player's transitions move no network and enter no metric (``learner_return`` and
``objective_return`` are the learning seats'). Co-players need ``share`` false (each seat
its own networks: the learning seats' are trained apart from the seats the co-players
take). A recurrent co-player's memory starts at zeros with each episode, as its policy file
plays in a model.

Randomness comes only from the training seed's JAX key: the same settings and seed give the
same training on a given backend.
"""

from typing import Any, NamedTuple

import numpy as np

from dilemmas.learning import rewards
from dilemmas.learning.coplayers import CoPlayers
from dilemmas.learning.networks import (apply, masked_logits, memory_size, network, replay,
                                        seat_vmap, seatwise, weights)
from dilemmas.learning.ppo_settings import MAX_STEPS, SEAT_SETTINGS, Settings

#: The most bytes a training's arrays may take (every seed's networks and rollout),
#: checked (``Trainer.footprint``) before anything is built or compiled.
MEMORY = 16 * 2 ** 30


# --- Advantages and the loss ---------------------------------------------------------------
def advantages(rewards, values, dones, last_value, discount, gae_lambda):
    """Generalised advantage estimates and returns (targets) over a rollout ``(T, ...)``:
    ``delta_t = r_t + discount * V_{t+1} * (1 - done_t) - V_t``, ``A_t = delta_t + discount *
    gae_lambda * (1 - done_t) * A_{t+1}``, ``V_T = last_value``; returns ``A + V``."""
    import jax
    import jax.numpy as jnp

    def back(carry, step):
        advantage, next_value = carry
        reward, value, done = step
        live = 1.0 - done
        delta = reward + discount * next_value * live - value
        advantage = delta + discount * gae_lambda * live * advantage
        return (advantage, value), advantage

    _, found = jax.lax.scan(back, (jnp.zeros_like(last_value), last_value),
                            (rewards, values, dones.astype(values.dtype)), reverse=True)
    return found, found + values


def ppo_loss(logits, mask, actions, old_log_prob, values, old_values, advantage, target,
             clip, value_coef, entropy_coef):
    """PPO's clipped loss over a minibatch: ``(total, (actor, critic, entropy, approx_kl,
    clipped fraction))`` (module docstring)."""
    import jax
    import jax.numpy as jnp

    log_probs = jax.nn.log_softmax(masked_logits(logits, mask))
    log_prob = jnp.take_along_axis(log_probs, actions[..., None], axis=-1)[..., 0]
    entropy = -jnp.sum(jnp.exp(log_probs) * log_probs, axis=-1).mean()
    ratio = jnp.exp(log_prob - old_log_prob)
    normal = (advantage - advantage.mean()) / (advantage.std() + 1e-8)
    actor = -jnp.minimum(ratio * normal,
                         jnp.clip(ratio, 1 - clip, 1 + clip) * normal).mean()
    clipped = old_values + jnp.clip(values - old_values, -clip, clip)
    critic = 0.5 * jnp.maximum((values - target) ** 2, (clipped - target) ** 2).mean()
    kl = ((ratio - 1) - (log_prob - old_log_prob)).mean()
    fraction = (jnp.abs(ratio - 1) > clip).mean()
    return actor + value_coef * critic - entropy_coef * entropy, \
        (actor, critic, entropy, kl, fraction)


# --- Value normalisation ------------------------------------------------------------------
#: The weight of the statistics so far against an update's value targets.
VALUE_DECAY = 0.99
#: The smallest variance of the targets a critic's units may have.
VALUE_FLOOR = 1e-8


class ValueStats(NamedTuple):
    """Running statistics of each seat's value targets (a pytree of ``(seats,)`` arrays)."""

    mean: Any     # the weighted sum of the targets' means
    square: Any   # ... of their mean squares
    weight: Any   # the weights' sum: 1 - VALUE_DECAY ** updates (0: none yet)

    def scale(self):
        """``(m, s)``: the mean and standard deviation the critic's output is in units of;
        ``(0, 0)`` before any target was seen, so that the first update's values are 0 in
        every unit of reward."""
        import jax.numpy as jnp

        seen = self.weight > 0
        weight = jnp.where(seen, self.weight, 1.0)
        mean = self.mean / weight
        deviation = jnp.sqrt(jnp.maximum(self.square / weight - mean ** 2, VALUE_FLOOR))
        return mean, jnp.where(seen, deviation, 0.0)

    def folded(self, targets):
        """The statistics with the targets ``(..., seats)`` of one update folded in."""
        axes = tuple(range(targets.ndim - 1))
        return ValueStats(VALUE_DECAY * self.mean + (1 - VALUE_DECAY) * targets.mean(axes),
                          VALUE_DECAY * self.square
                          + (1 - VALUE_DECAY) * (targets ** 2).mean(axes),
                          VALUE_DECAY * self.weight + (1 - VALUE_DECAY))


# --- Training ------------------------------------------------------------------------------
class Runner(NamedTuple):
    """One training seed between updates (a pytree)."""

    actor: Any
    critic: Any
    optimiser: Any
    env: Any              # the episodes' EnvState, batched over envs
    observations: Any     # (envs, seats, L)
    first: Any            # (envs,) the next decision is an episode's first
    actor_memory: Any     # (envs, seats, memory)
    critic_memory: Any
    returns: Any          # (envs, seats) each seat's reward so far this episode
    key: Any
    update: Any
    shaping: Any          # rewards.Shaping: what the reward trained on carries
    value_stats: Any      # ValueStats of each seat's value targets
    objective: Any        # (envs, seats) each seat's reward trained on so far this episode
    coplayer: Any         # (envs, co-player seats) the co-player each plays this episode
    coplayer_memory: Any  # each co-player's memory (envs, co-player seats, hidden)


class Rollout(NamedTuple):
    observations: Any
    critic_inputs: Any
    mask: Any
    first: Any
    actions: Any
    log_prob: Any
    values: Any
    rewards: Any
    dones: Any


class Trainer:
    """The compiled PPO of ``settings`` on ``env`` (a ``FunctionalEnv``) for ``updates``
    updates; ``init(key)`` a seed's fresh ``Runner`` (``start(keys)`` every seed's, compiled),
    ``chunk(runners, count)`` ``count``
    updates of every seed at once (vmapped), returning the runners and each update's
    metrics (``METRICS``, arrays ``(seeds, count)``); ``evaluate(runners, keys, episodes,
    rounds)`` every seed's actor played greedily (``_evaluate``), arrays ``(seeds,)``."""

    def __init__(self, env, settings: Settings, updates: int,
                 coplayers: CoPlayers | None = None):
        import jax

        self.settings, self.updates = settings, updates
        self.seats = env.num_agents
        self.coplayers = coplayers
        if coplayers is not None and coplayers.scripted:  # they stand in inside the env
            env = env.with_stand_ins(coplayers.scripted, coplayers.seats)
        self.env = env
        if coplayers is not None:
            if settings.share:
                raise ValueError("co-players need share = false (the learning seats' networks "
                                 "their own, apart from the seats the co-players take)")
            if not set(coplayers.seats) < set(range(self.seats)):
                raise ValueError(f"co-player seats={list(coplayers.seats)!r} must be some, not "
                                 f"all, of the {self.seats} agents 0 to {self.seats - 1}")
        #: the agents whose networks learn (those no co-player takes)
        self.learners = np.array([seat for seat in range(self.seats)
                                  if coplayers is None or seat not in coplayers.seats])
        self.decisions = len(env.decisions)
        self.objective = rewards.Objective(settings.reward, settings.weights(), self.seats,
                                           env.game)
        if settings.steps % self.decisions:
            raise ValueError(f"steps={settings.steps} must be a multiple of the "
                             f"{self.decisions} decisions of a round of {env.game.name}")
        # a minibatch holds units of K transitions side by side: K = 1 with one network,
        # K = seats (one of each seat's) with a network per seat
        self.side = 1 if settings.share else self.seats
        sequences = settings.envs * self.seats // self.side
        if settings.network == "gru" and sequences % settings.minibatches:
            raise ValueError(f"minibatches={settings.minibatches} must divide the "
                             f"{sequences} sequences (envs"
                             + (" x seats)" if settings.share else ", each seat's own)"))
        batch = sequences * settings.steps
        if batch % settings.minibatches:
            raise ValueError(f"minibatches={settings.minibatches} must divide the batch of "
                             f"{batch} transitions"
                             + ("" if settings.share else " of each seat"))
        self.observation = env.observation_space(env.agents[0]).shape[0]
        self.actions = int(env.action_space(env.agents[0]).n)
        self.critic_input = self.observation if settings.algorithm == "ippo" \
            else env.state_space.shape[0] + self.seats
        self.steps = updates * settings.epochs * settings.minibatches
        if self.steps > MAX_STEPS:
            raise ValueError(f"updates={updates} x epochs={settings.epochs} x minibatches="
                             f"{settings.minibatches} is {self.steps:,} gradient steps, more "
                             f"than the {MAX_STEPS:,} the optimiser counts")
        # the actor and the critic optimised apart (MAPPO), or as one (IPPO)
        self.apart = settings.algorithm == "mappo"
        self.per_seat = {key: self.seat_values(key) for key in SEAT_SETTINGS}
        self.optimiser = self.adam(*(self.per_seat[key] if np.ndim(self.per_seat[key]) == 0
                                     else self.per_seat[key][0]
                                     for key in ("learning_rate", "max_grad_norm")))
        self.chunk = jax.jit(jax.vmap(self._chunk, in_axes=(0, None)), static_argnums=1)
        self.start = jax.jit(jax.vmap(self.init))
        self.evaluate = jax.jit(jax.vmap(self._evaluate, in_axes=(0, 0, None, None)),
                                static_argnums=(2, 3))

    def seat_values(self, key: str):
        """The setting ``key``: a number, or one per learning seat (an array ``(seats,)``)."""
        value = getattr(self.settings, key)
        return rewards.per_seat(key, value, self.seats) if isinstance(value, tuple) else value

    def adam(self, rate, norm):
        """Adam at ``rate`` (falling linearly to 0 over the training when ``anneal``) after
        clipping the gradients to the global norm ``norm``."""
        import optax

        if self.settings.anneal:
            rate = optax.linear_schedule(rate, 0.0, self.steps)
        return optax.chain(optax.clip_by_global_norm(norm), optax.adam(rate, eps=1e-5))

    def optimiser_init(self, arrays):
        """The optimiser's state of a seed's (or a seat's) ``(actor, critic)``."""
        if self.apart:
            return tuple(self.optimiser.init(part) for part in arrays)
        return self.optimiser.init(arrays)

    def optimiser_step(self, grads, state, arrays, rate, norm):
        """One step of the optimiser of ``rate`` and ``norm`` (``adam``): ``(change,
        state)``; the actor's and the critic's gradients clipped apart when ``apart``."""
        optimiser = self.adam(rate, norm)
        if not self.apart:
            return optimiser.update(grads, state, arrays)
        steps = [optimiser.update(*part) for part in zip(grads, state, arrays)]
        return tuple(step[0] for step in steps), tuple(step[1] for step in steps)

    def footprint(self, seeds: int) -> tuple[int, int]:
        """``(networks, rollouts)``: lower bounds of the bytes ``seeds`` seeds hold at once,
        in float32: each seed's actors and critics (one, or one per seat) four times
        (weights, gradients and Adam's two moments), and its rollout's observations (``envs x
        steps x agents`` vectors)."""
        settings = self.settings
        networks = (weights(self.observation, self.actions, settings)
                    + weights(self.critic_input, 1, settings)) * self.side
        rollout = settings.envs * settings.steps * self.seats * self.observation
        return seeds * 4 * 4 * networks, seeds * 4 * rollout

    def check_footprint(self, seeds: int) -> None:
        """A ValueError naming the sizes if ``footprint(seeds)`` is over ``MEMORY``."""
        networks, rollouts = self.footprint(seeds)
        if networks + rollouts > MEMORY:
            settings = self.settings
            raise ValueError(
                f"hidden={settings.hidden}, layers={settings.layers}, envs={settings.envs} "
                f"and steps={settings.steps} with {seeds} seed{'s' * (seeds != 1)} need "
                "at least "
                f"{networks / 2 ** 30:,.1f} GiB of networks (with their gradients and Adam's "
                f"moments) and {rollouts / 2 ** 30:,.1f} GiB of rollouts ({self.seats} agents, "
                f"observations of {self.observation}), more than the {MEMORY // 2 ** 30} GiB "
                "a training may hold; make them smaller")

    def networks(self, key, inputs: int, outputs: int, head_gain: float):
        """A fresh network, or one per seat stacked (``share`` false)."""
        import equinox as eqx
        import jax

        def one(key):
            return network(key, inputs, outputs, self.settings, head_gain)

        if self.settings.share:
            return one(key)
        return eqx.filter_vmap(one)(jax.random.split(key, self.seats))

    # A seed's start.
    def init(self, key):
        import equinox as eqx
        import jax
        import jax.numpy as jnp

        key, actor_key, critic_key, env_key = jax.random.split(key, 4)
        actor = self.networks(actor_key, self.observation, self.actions, 0.01)
        critic = self.networks(critic_key, self.critic_input, 1, 1.0)
        init = self.optimiser_init if self.settings.share else jax.vmap(self.optimiser_init)
        optimiser = init(eqx.filter((actor, critic), eqx.is_array))
        observations, env = jax.vmap(self.env.start)(
            jax.random.split(env_key, self.settings.envs))
        memory = jnp.zeros((self.settings.envs, self.seats, memory_size(self.settings)))
        env = jax.tree_util.tree_map(lambda x: x.astype(x.dtype), env)  # weak types, as updates
        envs = self.settings.envs
        coplayer, comemory = (jnp.zeros((envs, 0), jnp.int32), ()) if self.coplayers is None \
            else (self.coplayers.draw(jax.random.fold_in(env_key, 1), (envs,)),
                  self.coplayers.memory((envs, len(self.coplayers.seats))))
        env = self.stood(env, coplayer)
        return Runner(actor, critic, optimiser, env, observations,  # leave them: one program
                      jnp.ones(envs, dtype=bool), memory, memory,
                      jnp.zeros((envs, self.seats)), key, jnp.int32(0),
                      self.objective.start(envs), ValueStats(*[jnp.zeros(self.seats)] * 3),
                      jnp.zeros((envs, self.seats)), coplayer, comemory)

    def critic_inputs(self, index: int, env, observations):
        import jax
        import jax.numpy as jnp

        if self.settings.algorithm == "ippo":
            return observations
        world = jax.vmap(self.env.state_at, in_axes=(None, 0))(index, env)
        seats = jnp.broadcast_to(jnp.eye(self.seats), (world.shape[0], self.seats, self.seats))
        world = jnp.broadcast_to(world[:, None], (world.shape[0], self.seats, world.shape[-1]))
        return jnp.concatenate([world, seats], axis=-1)

    # The rollout: a round's decisions in order, each with its static index.
    def _decision(self, index: int, runner: Runner):
        import jax
        import jax.numpy as jnp

        key, act_key, env_key = jax.random.split(runner.key, 3)
        critic_in = self.critic_inputs(index, runner.env, runner.observations)
        share = self.settings.share
        logits, actor_memory = seatwise(apply, share, runner.actor, runner.observations,
                                        runner.actor_memory,
                                     jnp.broadcast_to(runner.first[:, None],
                                                      (self.settings.envs, self.seats)))
        first = jnp.broadcast_to(runner.first[:, None], (self.settings.envs, self.seats))
        values, critic_memory = seatwise(apply, share, runner.critic, critic_in,
                                         runner.critic_memory, first)
        mask = runner.env.mask
        logits = masked_logits(logits, mask)
        actions = jax.random.categorical(act_key, logits)
        coplayer, comemory = runner.coplayer, runner.coplayer_memory
        if self.coplayers is not None:
            actions, comemory, redraw = self.coplayed(jax.random.fold_in(act_key, 1), runner,
                                                      actions)
        log_prob = jnp.take_along_axis(jax.nn.log_softmax(logits), actions[..., None],
                                       axis=-1)[..., 0]
        decided = jax.vmap(self.env.decide_and_reset, in_axes=(None, 0, 0, 0))(
            index, jax.random.split(env_key, self.settings.envs), runner.env, actions)
        ended = decided.ended
        if self.coplayers is not None:  # an episode that ended: the next one's co-players
            coplayer = jnp.where(ended[:, None], redraw, coplayer)
            decided = decided._replace(state=self.stood(decided.state, coplayer))
        trained, shaping = self.objective(decided.rewards, decided.columns, runner.shaping,
                                          ended)
        returns = runner.returns + decided.rewards
        objective = runner.objective + trained
        seen = (ended.sum(), jnp.where(ended[:, None], returns, 0.0).sum(axis=0),
                jnp.where(ended[:, None], objective, 0.0).sum(axis=0),
                {name: jnp.where(ended, column, 0).sum()
                 for name, column in decided.columns.items()})
        step = Rollout(runner.observations, critic_in, mask, first, actions, log_prob,
                       values[..., 0], trained,
                       jnp.broadcast_to(ended[:, None], (self.settings.envs, self.seats)))
        runner = runner._replace(env=decided.state, observations=decided.vectors,
                                 first=ended, actor_memory=actor_memory,
                                 critic_memory=critic_memory,
                                 returns=jnp.where(ended[:, None], 0.0, returns), key=key,
                                 shaping=shaping,
                                 objective=jnp.where(ended[:, None], 0.0, objective),
                                 coplayer=coplayer, coplayer_memory=comemory)
        return runner, step, seen

    def stood(self, env, coplayer):
        """The episodes ``env`` with the scripted co-players of ``coplayer`` ``(envs,
        co-player seats)`` standing in (``FunctionalEnv.standing``)."""
        import jax
        import jax.numpy as jnp

        if self.coplayers is None or not self.coplayers.scripted:
            return env
        scripted = jnp.asarray(self.coplayers.places()[1])[coplayer]
        return jax.vmap(self.env.standing)(env, scripted)

    def coplayed(self, key, runner: Runner, actions):
        """The co-players' actions in their seats (``CoPlayers``): ``(actions, the
        co-players' memories after them, a co-player drawn for each seat of each episode for
        the episode that follows)``. A scripted co-player's seat keeps the learner's action,
        which its stand-in replaces inside the environment."""
        import jax
        import jax.numpy as jnp

        co = self.coplayers
        seats = np.asarray(co.seats)
        play_key, draw_key = jax.random.split(key)
        redraw = co.draw(draw_key, (self.settings.envs,))
        if not co.networks:
            return actions, runner.coplayer_memory, redraw
        first = jnp.broadcast_to(runner.first[:, None], (self.settings.envs, len(seats)))
        every, memory = co.logits(runner.observations[:, seats], runner.coplayer_memory,
                                  first)  # (networks, envs, seats, actions)
        network = jnp.asarray(co.places()[0])[runner.coplayer]
        logits = jnp.take_along_axis(every, jnp.maximum(network, 0)[None, ..., None],
                                     axis=0)[0]
        logits = masked_logits(logits, runner.env.mask[:, seats])
        chosen = jnp.argmax(logits, axis=-1) if co.play == "greedy" else \
            jax.random.categorical(play_key, logits)
        chosen = jnp.where(network >= 0, chosen.astype(actions.dtype), actions[:, seats])
        return actions.at[:, seats].set(chosen), memory, redraw

    def _round(self, runner: Runner, _):
        import jax
        import jax.numpy as jnp

        steps, seen = [], []
        for index in range(self.decisions):
            runner, step, episodes = self._decision(index, runner)
            steps.append(step)
            seen.append(episodes)
        stacked = jax.tree_util.tree_map(lambda *xs: jnp.stack(xs), *steps)
        total = jax.tree_util.tree_map(lambda *xs: sum(xs), *seen)
        return runner, (stacked, total)

    def rollout(self, runner: Runner):
        """``steps`` decisions of every episode: ``(runner, Rollout of (steps, envs, seats,
        ...) arrays, (episodes ended, their returns per seat, their returns of the reward
        trained on per seat, their model columns' sums))``."""
        import jax

        s = self.settings
        runner, (rollout, seen) = jax.lax.scan(self._round, runner, None,
                                               s.steps // self.decisions)
        rollout = jax.tree_util.tree_map(
            lambda x: x.reshape(s.steps, *x.shape[2:]), rollout)  # (rounds, D) -> decisions
        return runner, rollout, jax.tree_util.tree_map(lambda x: x.sum(axis=0), seen)

    def _update(self, runner: Runner, _):
        import equinox as eqx
        import jax
        import jax.numpy as jnp

        s = self.settings
        start = runner
        runner, rollout, seen = self.rollout(runner)
        last_in = self.critic_inputs(0, runner.env, runner.observations)  # a round begins
        first = jnp.broadcast_to(runner.first[:, None], (s.envs, self.seats))
        last_value = seatwise(apply, s.share, runner.critic, last_in, runner.critic_memory,
                              first)[0][..., 0]
        values, stats = rollout.values, runner.value_stats
        if s.value_norm:  # the critic's outputs in the units of the targets so far
            mean, scale = stats.scale()
            values, last_value = mean + scale * values, mean + scale * last_value
        seat = self.per_seat
        advantage, target = advantages(rollout.rewards, values, rollout.dones, last_value,
                                       seat["discount"], seat["gae_lambda"])
        if s.value_norm:
            stats = stats.folded(target)
            mean, scale = stats.scale()
            target = (target - mean) / scale
        arrays, static = eqx.partition((runner.actor, runner.critic), eqx.is_array)

        def loss(arrays, batch, actor_memory, critic_memory):
            actor, critic = eqx.combine(arrays, static)
            data, advantage, target = batch
            if s.network == "gru":
                logits = seatwise(replay, s.share, actor, data.observations, actor_memory,
                                  data.first)
                values = seatwise(replay, s.share, critic, data.critic_inputs,
                                  critic_memory, data.first)
            else:
                none = jnp.zeros(data.first.shape + (0,))
                logits = seatwise(apply, s.share, actor, data.observations, none,
                                  data.first)[0]
                values = seatwise(apply, s.share, critic, data.critic_inputs, none,
                                  data.first)[0]
            inputs = (logits, data.mask, data.actions, data.log_prob, values[..., 0],
                      data.values, advantage, target)
            if s.share:
                return ppo_loss(*inputs, s.clip, s.value, s.entropy)
            # each seat's own loss (over the seat axis, the last but the inputs' own) with its
            # own coefficients, summed: each seat's network is moved by its own transitions
            total, aux = seat_vmap(ppo_loss, inputs, (-2, -2, -1, -1, -1, -1, -1, -1),
                                   [seat[key] for key in ("clip", "value", "entropy")])
            if self.coplayers is not None:  # the co-players' seats move no network
                learning = np.isin(np.arange(self.seats), self.learners)
                return (jnp.where(learning, total, 0.0).sum(),
                        tuple(x[self.learners].mean() for x in aux))
            return total.sum(), tuple(x.mean() for x in aux)

        gradient = jax.value_and_grad(loss, has_aux=True)
        batch = (rollout, advantage, target)

        def epoch(carry, key):
            arrays, optimiser = carry
            side = self.side  # units of K side by side: (..., units, K, ...)
            if s.network == "gru":  # whole sequences: (T, units, K, ...) split on axis 1
                units = s.envs * self.seats // side
                flat = jax.tree_util.tree_map(
                    lambda x: x.reshape(x.shape[0], units, side, *x.shape[3:]), batch)
                memories = (start.actor_memory.reshape(units, side, -1),
                            start.critic_memory.reshape(units, side, -1))
                order = jax.random.permutation(key, units)
                size = units // s.minibatches
                parts = jax.tree_util.tree_map(
                    lambda x: jnp.swapaxes(x[:, order].reshape(
                        x.shape[0], s.minibatches, size, *x.shape[2:]), 0, 1), flat)
                mems = jax.tree_util.tree_map(
                    lambda x: x[order].reshape(s.minibatches, size, *x.shape[1:]), memories)
            else:  # single transitions: (units, K, ...)
                units = s.steps * s.envs * self.seats // side
                flat = jax.tree_util.tree_map(
                    lambda x: x.reshape(units, side, *x.shape[3:]), batch)
                order = jax.random.permutation(key, units)
                size = units // s.minibatches
                parts = jax.tree_util.tree_map(
                    lambda x: x[order].reshape(s.minibatches, size, *x.shape[1:]), flat)
                mems = (jnp.zeros((s.minibatches, 0)), jnp.zeros((s.minibatches, 0)))

            def minibatch(carry, part):
                arrays, optimiser = carry
                data, mem = part
                (_, aux), grads = gradient(arrays, data, *mem)
                rate, norm = seat["learning_rate"], seat["max_grad_norm"]
                if s.share:
                    change, optimiser = self.optimiser_step(grads, optimiser, arrays, rate, norm)
                else:
                    change, optimiser = seat_vmap(self.optimiser_step,
                                                  (grads, optimiser, arrays), (0, 0, 0),
                                                  [rate, norm])
                return (eqx.apply_updates(arrays, change), optimiser), aux

            return jax.lax.scan(minibatch, (arrays, optimiser), (parts, mems))

        key, *epoch_keys = jax.random.split(runner.key, s.epochs + 1)
        (arrays, optimiser), aux = jax.lax.scan(epoch, (arrays, runner.optimiser),
                                                jnp.stack(epoch_keys))
        actor, critic = eqx.combine(arrays, static)
        runner = runner._replace(actor=actor, critic=critic, optimiser=optimiser, key=key,
                                 update=runner.update + 1, value_stats=stats)
        count, returns, objective, columns = seen
        if self.coplayers is not None:  # the learning seats' returns only
            returns, objective = returns[self.learners], objective[self.learners]
        per = jnp.maximum(count, 1)
        metrics = {"episodes": count,
                   "learner_return": jnp.where(count > 0, returns.mean() / per, jnp.nan),
                   "objective_return": jnp.where(count > 0, objective.mean() / per, jnp.nan),
                   **{f"end_{name}": jnp.where(count > 0, value / per, jnp.nan)
                      for name, value in columns.items()},
                   **dict(zip(LOSSES, (x.mean() for x in aux)))}
        return runner, metrics

    def _chunk(self, runner: Runner, count: int):
        import jax

        return jax.lax.scan(self._update, runner, None, count)

    def _evaluate(self, runner: Runner, key, episodes: int, rounds: int) -> dict:
        """A seed's actor played greedily (``greedy_episode``) in ``episodes`` episodes from
        ``key``, each bounded by ``rounds``: ``episodes`` (those that ended), and over them
        ``learner_return``, ``objective_return`` and ``end_<column>`` as ``chunk`` reports
        them. Its key is not the runner's: evaluating
        changes nothing of the training."""
        import jax
        import jax.numpy as jnp

        if self.coplayers is not None:
            raise ValueError("a training with co-players is not evaluated greedily (its "
                             "learners' greedy play would take the co-players' seats)")

        def one(key):
            return greedy_episode(self.env, runner.actor, key, rounds, self.settings.share,
                                  self.objective)

        returns, trained, columns, ended = jax.vmap(one)(jax.random.split(key, episodes))
        count = ended.sum()
        per = jnp.maximum(count, 1)

        def mean(values):
            values = jnp.where(ended.reshape(-1, *[1] * (values.ndim - 1)), values, 0)
            return jnp.where(count > 0, values.sum(axis=0).mean() / per, jnp.nan)

        return {"episodes": count, "learner_return": mean(returns),
                "objective_return": mean(trained),
                **{f"end_{name}": mean(value) for name, value in columns.items()}}


#: The losses each update reports (means over its minibatches).
LOSSES = ("actor_loss", "critic_loss", "entropy", "approx_kl", "clipped_fraction")


def greedy_episode(env, actor, key, rounds: int, share: bool = True, objective=None):
    """One whole episode of ``env`` with every agent playing ``actor``'s greedy action (the
    allowed one of highest logit, as its policy file plays), bounded by ``rounds`` (its
    ``max_steps``); ``share`` false: ``actor`` is each seat's own, stacked. Returns
    ``(returns (seats,), returns of the reward trained on (seats,; ``objective``, a
    ``rewards.Objective``, or the own rewards without one), the model columns at its end,
    whether it ended within ``rounds``)``. Not compiled: ``vmap`` and ``jit`` it."""
    import jax
    import jax.numpy as jnp

    decisions = len(env.decisions)
    memory = actor.cell.hidden_size if actor.cell is not None else 0
    seats = env.num_agents
    start, key = jax.random.split(key)
    observations, state = env.start(start)
    shapes = jax.eval_shape(lambda: env.decide(decisions - 1, key, state,
                                               jnp.zeros(seats, jnp.int32)).columns)
    columns = jax.tree_util.tree_map(lambda s: jnp.zeros(s.shape, s.dtype), shapes)
    shaping = objective.start(1) if objective is not None else None
    carry = (state, observations, jnp.zeros((seats, memory)), jnp.zeros(seats),
             jnp.zeros(seats), shaping, jnp.bool_(False), columns)

    def round_(carry, key):
        state, observations, hidden, returns, trained, shaping, ended, columns = carry
        for index, step_key in enumerate(jax.random.split(key, decisions)):
            logits, hidden = seatwise(apply, share, actor, observations, hidden,
                                      jnp.zeros(seats, bool))
            actions = jnp.argmax(masked_logits(logits, state.mask), axis=-1)
            decided = env.decide(index, step_key, state, actions)
            live = ~ended
            if objective is None:
                shaped = decided.rewards
            else:
                batch = jax.tree_util.tree_map(lambda x: x[None], decided.columns)
                shaped, shaping = objective(decided.rewards[None], batch, shaping,
                                            decided.ended[None])
                shaped = shaped[0]
            returns = returns + jnp.where(live, decided.rewards, 0.0)
            trained = trained + jnp.where(live, shaped, 0.0)
            columns = jax.tree_util.tree_map(lambda old, now: jnp.where(live, now, old),
                                             columns, decided.columns)
            ended = ended | decided.ended
            state, observations = decided.state, decided.vectors
        return (state, observations, hidden, returns, trained, shaping, ended, columns), None

    carry, _ = jax.lax.scan(round_, carry, jax.random.split(key, rounds))
    return carry[3], carry[4], carry[7], carry[6]


def greedy_episodes(env, actor, episodes: int, key, rounds: int, share: bool = True):
    """``episodes`` of ``greedy_episode``, compiled: ``(returns (episodes, seats), the model
    columns at each episode's end, whether it ended within ``rounds``)``."""
    import jax

    def one(key):
        returns, _, columns, ended = greedy_episode(env, actor, key, rounds, share)
        return returns, columns, ended

    return jax.jit(jax.vmap(one))(jax.random.split(key, episodes))
