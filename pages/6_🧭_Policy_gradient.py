"""Placeholder: this page is being written."""

from ui import page

scenario = page.setup("Policy gradient", "🧭", "This page is coming soon.")
