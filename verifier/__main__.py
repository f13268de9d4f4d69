from verifier.cli import run

run()
