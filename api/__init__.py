"""fairdeal's edges: the HTTP service and the command line. Thin: the rules live in ``fairdeal``."""
