"""What researchers do with the games: studies and the sweep runner (``studies``), learning
(``learning``), game theory (``game_theory``) and paper figures (``figures``), and each game's
episode statistics and figures (``dilemmas.analysis.<game>``), all built on the games'
DataCollector columns."""
