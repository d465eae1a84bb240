"""Social outcome metrics of episodes, from their agent data (docs/learning.md, "Social
outcomes").

Perolat et al. (2017, "A multi-agent reinforcement learning model of common-pool resource
appropriation", section 3) measure a group's outcome over an episode of ``T`` rounds and
``N`` agents, ``R_i`` agent ``i``'s return and ``r_i(t)`` its reward in round ``t``:

* ``efficiency`` -- ``sum_i R_i / T``, the group's reward per round;
* ``equality`` -- ``1 - sum_i sum_j |R_i - R_j| / (2 N sum_i R_i)``, one minus the Gini
  coefficient of the returns; defined where every return is at least 0 and their sum above 0
  (else NaN: a Gini coefficient of losses says nothing);
* ``sustainability`` -- the mean over the agents of the mean round ``t`` at which
  ``r_i(t) > 0`` (agents never rewarded left out; NaN if none was);
* ``peace`` -- ``(N T - sum_i sum_t removed_i(t)) / T``, the agents in play per round, for
  games whose agents can be taken out of play (a ``removed`` agent column, Stag Hunt's).

``signal_information`` is the mutual information in bits between an agent's signal and its
mode in the same night (Bucket Brigade's ``signal`` and ``mode`` agent columns), the plug-in
estimate over an episode's agent-nights: 0 when the signal says nothing of what the agent
does (whatever the lie rate), ``H(mode)`` when it says all of it.
"""

import numpy as np
import pandas as pd

METRICS = ("efficiency", "equality", "sustainability", "peace")


def outcomes(agents: pd.DataFrame, run: str = "run_id") -> pd.DataFrame:
    """Per run (the index): ``METRICS`` (module docstring) of agent data with the columns
    ``Step``, ``AgentID``, ``reward`` (cumulative) and optionally ``removed``, a row per
    agent and round (``Step`` 0, before the first round, may be among them)."""
    rows = {}
    for key, frame in agents.sort_values([run, "AgentID", "Step"]).groupby(run, sort=True):
        played = frame[frame["Step"] > 0]
        rounds = int(frame["Step"].max())
        cumulative = frame.pivot(index="Step", columns="AgentID", values="reward")
        step = cumulative.diff().fillna(cumulative).loc[cumulative.index > 0]
        returns = cumulative.iloc[-1].to_numpy(dtype=float)
        total, agents_n = returns.sum(), len(returns)
        equality = (1 - np.abs(returns[:, None] - returns[None, :]).sum()
                    / (2 * agents_n * total)) if (returns >= 0).all() and total > 0 else np.nan
        when = [step.index[step[agent] > 0].to_numpy(dtype=float).mean()
                for agent in step.columns if (step[agent] > 0).any()]
        peace = (agents_n * rounds - played["removed"].astype(bool).sum()) / rounds \
            if "removed" in frame and rounds else np.nan
        rows[key] = {"efficiency": total / rounds if rounds else np.nan,
                     "equality": equality,
                     "sustainability": float(np.mean(when)) if when else np.nan,
                     "peace": peace}
    return pd.DataFrame.from_dict(rows, orient="index", columns=list(METRICS))


def mutual_information(x, y) -> float:
    """The plug-in mutual information in bits of two paired discrete samples."""
    joint = pd.crosstab(pd.Series(np.asarray(x)), pd.Series(np.asarray(y))).to_numpy(float)
    if joint.sum() == 0:
        return np.nan
    joint = joint / joint.sum()
    outer = joint.sum(axis=1, keepdims=True) @ joint.sum(axis=0, keepdims=True)
    seen = joint > 0
    return float((joint[seen] * np.log2(joint[seen] / outer[seen])).sum())


def signal_information(agents: pd.DataFrame, run: str = "run_id") -> pd.Series:
    """Per run: the mutual information in bits between ``signal`` and ``mode`` over its
    agent-nights (rows where either is missing, such as the start, left out)."""
    nights = agents.dropna(subset=["signal", "mode"])
    return pd.Series({key: mutual_information(frame["signal"], frame["mode"])
                      for key, frame in nights.groupby(run, sort=True)},
                     name="signal_information", dtype=float)
