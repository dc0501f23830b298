"""retrieval package."""
