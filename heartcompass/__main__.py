from heartcompass.cli.app import main

main()
