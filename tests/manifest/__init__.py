"""Tests of appclient.manifest, one module per module of the package."""
