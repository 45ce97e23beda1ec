"""How documents write dates: a month's name, whole or cut ("March", "Mar.", "Sept")."""

MONTH = r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?"  # match with re.I
