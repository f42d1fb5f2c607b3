# Fixture: not UTF-8: ÿþ
def latin():
    return "é"
