/// "0-11, 15, 20-23": IDs as the ranges a user would type.
public enum IDRanges {
    public static func describe(_ ids: [Int]) -> String {
        var parts: [String] = []
        var index = 0
        while index < ids.count {
            var end = index
            while end + 1 < ids.count && ids[end + 1] == ids[end] + 1 { end += 1 }
            parts.append(end > index ? "\(ids[index])-\(ids[end])" : "\(ids[index])")
            index = end + 1
        }
        return parts.joined(separator: ",")
    }
}
