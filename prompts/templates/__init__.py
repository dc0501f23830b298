"""Prompt template files (YAML); a package only so that wheels ship them as package data."""
