"""Placeholder: this page is being written."""

from ui import page

scenario = page.setup("Clipping and KL", "🧷", "This page is coming soon.")
