"""The embedded reference agent server: the AppBuilder conversation protocol on 127.0.0.1."""
