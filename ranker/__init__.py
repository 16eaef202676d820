"""ranker"""
