"""What the reference server remembers."""
