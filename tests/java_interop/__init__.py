"""Tests that run the Java client (java-interop/) against the reference server."""
