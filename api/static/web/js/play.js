// The player's page (being written).
