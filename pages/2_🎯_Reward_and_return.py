"""Placeholder: this page is being written."""

from ui import page

scenario = page.setup("Reward and return", "🎯", "This page is coming soon.")
