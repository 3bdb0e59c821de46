"""Statistics for games and players: placement-game skill statistics, backgammon error
rates and ratings, information and pairing."""
