"""A trainer that calls an environment as JaxMARL's IPPO baseline does (JaxMARL's
``baselines/IPPO/ippo_ff_*.py``, which is not on PyPI; tests/test_functional_ippo.py):

* the sizes from ``env.num_agents``, ``env.agents``, ``env.action_space(env.agents[0]).n``
  and ``env.observation_space(env.agents[0]).shape``;
* ``jax.vmap(env.reset)`` and ``jax.vmap(env.step)`` over ``episodes`` episodes, all inside
  one ``jax.jit`` with ``lax.scan`` over steps and updates;
* the observations, dones and rewards of the agents stacked agent by agent and reshaped to
  one row per actor (``episodes x agents`` actors), and the sampled actions reshaped back to
  ``(agents, episodes, -1)``, so that each agent's action in one episode has shape ``(1,)``;
* every leaf of ``infos`` reshaped to one value per actor, ``(episodes x agents,)``.

The learner is a shared linear softmax policy and value with PPO's clipped loss, written
here; the test asserts what IPPO needs of the environment, and that the policy learns.
"""

import jax
import jax.numpy as jnp
import optax


def rows(values: dict, agents, actors):
    """The agents' values stacked agent by agent, one row per actor."""
    return jnp.stack([values[a] for a in agents]).reshape((actors, -1))


def train(env, key, episodes=16, steps=16, updates=8, rate=0.05):
    """``(metrics, params)``: the metrics of each update (``infos``' leaves and the losses,
    each ``(updates, steps, actors)`` or ``(updates,)``), and the last parameters."""
    agents, actors = env.agents, env.num_agents * episodes
    count = env.action_space(env.agents[0]).n
    length = env.observation_space(env.agents[0]).shape[0]
    optimiser = optax.adam(rate)

    def policy(params, observations):
        logits = observations @ params["pi"] + params["pi_bias"]
        return jax.nn.log_softmax(logits), observations @ params["v"] + params["v_bias"]

    def collect(carry, key):
        params, state, observations = carry
        choose, play = jax.random.split(key)
        seen = rows(observations, agents, actors)
        log_pi, value = policy(params, seen)
        action = jax.random.categorical(choose, log_pi)
        given = action.reshape((env.num_agents, episodes, -1))
        observations, state, reward, done, infos = jax.vmap(env.step)(
            jax.random.split(play, episodes), state, {a: given[i] for i, a in enumerate(agents)})
        infos = jax.tree.map(lambda x: x.reshape((actors,)), infos)
        step = {"seen": seen, "action": action, "value": value,
                "log_prob": jnp.take_along_axis(log_pi, action[:, None], 1)[:, 0],
                "reward": rows(reward, agents, actors).squeeze(),
                "done": rows(done, agents, actors).squeeze(), "infos": infos}
        return (params, state, observations), step

    def loss(params, batch, advantage, target):
        log_pi, value = policy(params, batch["seen"])
        log_prob = jnp.take_along_axis(log_pi, batch["action"][:, None], 1)[:, 0]
        ratio = jnp.exp(log_prob - batch["log_prob"])
        advantage = (advantage - advantage.mean()) / (advantage.std() + 1e-8)
        actor = -jnp.minimum(ratio * advantage,
                             jnp.clip(ratio, 0.8, 1.2) * advantage).mean()
        return actor + 0.5 * jnp.square(value - target).mean()

    def update(carry, key):
        params, opt, state, observations = carry
        (params, state, observations), batch = jax.lax.scan(
            collect, (params, state, observations), jax.random.split(key, steps))
        _, last = policy(params, rows(observations, agents, actors))

        def backwards(next_value_and_gae, step):
            next_value, gae = next_value_and_gae
            live = 1.0 - step["done"]
            delta = step["reward"] + 0.99 * next_value * live - step["value"]
            gae = delta + 0.99 * 0.95 * live * gae
            return (step["value"], gae), gae

        _, advantage = jax.lax.scan(backwards, (last, jnp.zeros_like(last)), batch,
                                    reverse=True)
        flat = jax.tree.map(lambda x: x.reshape((steps * actors,) + x.shape[2:]), batch)
        flat_advantage = advantage.reshape(-1)
        value, grads = jax.value_and_grad(loss)(params, flat, flat_advantage,
                                                flat_advantage + flat["value"])
        changes, opt = optimiser.update(grads, opt)
        params = optax.apply_updates(params, changes)
        return (params, opt, state, observations), {**batch["infos"], "loss": value,
                                                    "reward": batch["reward"]}

    @jax.jit
    def run(key):
        start, play = jax.random.split(key)
        params = {"pi": jnp.zeros((length, count)), "pi_bias": jnp.zeros(count),
                  "v": jnp.zeros(length), "v_bias": jnp.zeros(())}
        observations, state = jax.vmap(env.reset)(jax.random.split(start, episodes))
        (params, _, _, _), metrics = jax.lax.scan(
            update, (params, optimiser.init(params), state, observations),
            jax.random.split(play, updates))
        return metrics, params

    return run(key)
