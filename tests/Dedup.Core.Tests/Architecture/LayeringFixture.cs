// Types for LayeringTests.References_made_only_inside_method_bodies_are_found: two "layers" of their own.
namespace Dedup.Core.Tests.Architecture.LayeringFixture.Lower
{
    public static class Callee
    {
        public static int Run() => 1;
    }

    public sealed class Item;
}

namespace Dedup.Core.Tests.Architecture.LayeringFixture.Upper
{
    public sealed class Caller
    {
        public static int Call()
        {
            var items = new List<object>();
            items.Add(new List<Lower.Item>());
            return Lower.Callee.Run() + items.Count;
        }
    }

    public sealed class Holder
    {
        public Lower.Item[]? Items { get; set; }
    }
}
