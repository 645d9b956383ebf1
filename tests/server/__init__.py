"""Tests of the reference server (appclient.server)."""
