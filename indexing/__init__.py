"""indexing package."""
