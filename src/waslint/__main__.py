from waslint.cli import main

main()
