import ActiondPostgres
import Testing

/// Reading a line's top-level user_id to split a batch by user.
@Suite("User partition")
struct UserPartitionTests {
    @Test func readsTheTopLevelUserID() {
        #expect(UserPartition.userID(in: #"{"id":"a","user_id":"ana","data":{}}"#) == "ana")
        #expect(UserPartition.userID(in: #"  { "id" : 1 , "user_id" : "bo" }  "#) == "bo")
        #expect(UserPartition.userID(in: #"{"id":"a","data":{"x":[1,{"user_id":"nested"}],"t":true}}"#) == nil)
        #expect(UserPartition.userID(in: #"{"data":{"user_id":"nested","s":"}\"{"},"user_id":"top","n":-1.5e3}"#) == "top")
    }

    @Test func aDuplicatedKeyCountsByItsLastOccurrenceAsInJSONB() {
        #expect(UserPartition.userID(in: #"{"user_id":"first","user_id":"last"}"#) == "last")
    }

    @Test func escapesAreDecoded() {
        #expect(UserPartition.userID(in: #"{"\u0075ser_id":"ana"}"#) == "ana")
        #expect(UserPartition.userID(in: #"{"user_id":"jos\u00e9"}"#) == "jos\u{e9}")
    }

    @Test func unreadableLinesHaveNoUser() {
        #expect(UserPartition.userID(in: #"{"id": "y", "type": "#) == nil)
        #expect(UserPartition.userID(in: "[1,2]") == nil)
        #expect(UserPartition.userID(in: #"{"user_id": 42}"#) == nil)
        #expect(UserPartition(count: 4).index(of: "not json") == 0)
    }

    @Test func oneUserAlwaysGoesToTheSamePartition() {
        let partition = UserPartition(count: 4)
        let indexes = Set((0..<20).map { partition.index(of: #"{"id":"e\#($0)","user_id":"ana"}"#) })
        #expect(indexes.count == 1)
        let spread = Set((0..<200).map { partition.index(of: #"{"user_id":"user-\#($0)"}"#) })
        #expect(spread == [0, 1, 2, 3])
    }
}
