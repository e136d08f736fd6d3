"""What the exact odds are used for: logged games set beside them (logged.py) and a
rebalance searched against them (rebalance.py). The odds themselves are computed by the
explicit checker (verify/explicit/odds.py), which walks the complete state graph."""
