"""Placeholder: this page is being written."""

from ui import page

scenario = page.setup("Baseline and variance", "📉", "This page is coming soon.")
