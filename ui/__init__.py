"""App-side helpers shared by the pages: chart builders, the scenario sidebar, formatting."""
