"""Maintenance: doctor, recovery after a crash."""
