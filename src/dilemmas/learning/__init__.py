"""Deep multi-agent learners trained on the games' environments: IPPO and MAPPO in JAX
(``dilemmas.learning.ppo``) and their trainings from TOML files (``dilemmas.learning.deep``).
Above ``dilemmas.envs``, whose functional environment they train on."""
