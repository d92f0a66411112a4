"""Placeholder: this page is being written."""

from ui import page

scenario = page.setup("TD error and GAE", "🧮", "This page is coming soon.")
