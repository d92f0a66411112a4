"""Placeholder: this page is being written."""

from ui import page

scenario = page.setup("Loop state action", "🔁", "This page is coming soon.")
