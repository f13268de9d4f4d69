from verifier.cli import main

main()
