"""Placeholder: this page is being written."""

from ui import page

scenario = page.setup("Value Q advantage", "📊", "This page is coming soon.")
