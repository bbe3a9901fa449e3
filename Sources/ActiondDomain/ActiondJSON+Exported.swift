// The handler API speaks actiond's JSON (`JSONValue`, `JSONWritable`, `JSONReadable`): whoever
// imports the domain sees it without a second import.
@_exported import ActiondJSON
