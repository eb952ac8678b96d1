using Dedup.Core.Linking;

namespace Dedup.Core.Tests.Linking;

/// <summary>The keep rules' descriptions, as plans and the CLI show them, and their argument checks.</summary>
public sealed class KeepRuleTextTests
{
    [Fact]
    public void The_built_in_rules_describe_themselves()
    {
        Assert.Equal(
            ["oldest", "newest", "shortest path", "first in path order"],
            new[] { KeepRule.Oldest, KeepRule.Newest, KeepRule.ShortestPath, KeepRule.PathOrder }.Select(r => r.ToString()));
    }

    [Fact]
    public void A_prefix_rule_lists_its_prefixes_in_order_and_needs_them()
    {
        Assert.Equal("prefix /b/, /a/", KeepRule.PreferPrefix("/b/", "/a/").Description);
        Assert.Equal("prefixes", Assert.Throws<ArgumentNullException>(() => KeepRule.PreferPrefix(null!)).ParamName);
    }
}
