"""Play and evaluate: agents, exact evaluation, simulation, tournaments, interactive play."""
