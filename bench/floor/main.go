// Command floor only prints a line: the startup floor that bench/startup.sh
// compares the client against.
package main

import "fmt"

func main() { fmt.Println("floor") }
