"""The appclient test suite; its layout mirrors the package."""
