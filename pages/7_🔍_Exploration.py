"""Placeholder: this page is being written."""

from ui import page

scenario = page.setup("Exploration", "🔍", "This page is coming soon.")
