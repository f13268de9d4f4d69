"""The values the stages hand each other (needs, extracted values, the records' store, the
codes that count), importing no stage: every stage reads them, none is above another here."""
