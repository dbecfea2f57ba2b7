"""Language-agnostic corpus cases and the code that loads, lints, records and anonymises them."""
