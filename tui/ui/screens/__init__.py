"""The screens: the dashboard, the order form, confirmations, prompts and help."""
