"""How the reference server runs a turn."""
