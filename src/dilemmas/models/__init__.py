"""The rules of the games (docs/rules/): each game's model side in ``dilemmas.models.<game>``
(its rule constants and parameter declaration in ``rules``, its Mesa model in ``model``, and where
it has them its array rules, batch engine, environment encoding and replays), and the machinery the
games share: the phase schedule (``phases``), parameter declarations (``parameters``,
``validation``), populations of behaviours (``population``), policies and learners played in
the models (``policies``, ``learners``), batch engines (``batch``), the environment encoding's
base (``interface``), gridworlds (``gridworld``) and safe file writing (``files``).

Nothing here imports the behaviours (``dilemmas.agents``), the analysis, the dashboard or the
command line; the registrations (``dilemmas.games``) join them.
"""
