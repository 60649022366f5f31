"""Data only: the era YAML files (a package so that packaging ships them)."""
