"""The behaviours of every game, as Mesa Agent subclasses: ``dilemmas.agents.<game>`` holds a
game's ``BEHAVIOURS`` (name -> class, what its ``population`` parameter accepts), and
``dilemmas.agents.policy`` the decision of seats that play a policy or a learner."""
