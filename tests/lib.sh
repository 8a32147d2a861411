# shell test helpers (sourced)
