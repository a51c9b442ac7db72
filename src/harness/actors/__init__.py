"""The actors: one package per worker process, plus the conversation that drives them."""
