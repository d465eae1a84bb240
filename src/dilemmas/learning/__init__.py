"""Deep multi-agent learners trained on the games' environments: IPPO and MAPPO in JAX
(``dilemmas.learning.ppo``, with its ``ppo_settings``, ``networks`` and ``coplayers``), their
trainings from TOML files (``dilemmas.learning.deep``, ``sweeps``, read by
``training_file``) and PSRO's oracle (``oracle``). Above ``dilemmas.envs``, whose functional
environment they train on."""
