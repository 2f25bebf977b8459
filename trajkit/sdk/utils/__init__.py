"""Helpers at the SDK's ``utils`` paths."""
