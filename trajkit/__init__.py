"""trajkit: inspect, validate, convert, migrate and export agent conversations."""

__version__ = "0.1.0"
