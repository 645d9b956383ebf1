"""Tests of appclient._manifest, one module per module of the package."""
