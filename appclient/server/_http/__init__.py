"""The reference server's HTTP side."""
