"""Fix planners, registered against the rule codes they fix: findings -> operations on the data."""
