"""The analysis's default budgets, in a module of their own so that the command
line can show them in its help without loading the search code."""

#: Default node budget for solving one position of a game.
DEFAULT_POSITION_BUDGET = 200_000
#: The agent that values positions the solver does not.
DEFAULT_AGENT = "mcts:1000"
