<?php

namespace Toolmark\Laravel\Agent;

/**
 * An AgentModel that hands over its text as it arrives. The agent loop streams such a model's reply
 * to the chat in batches (`.toolmark.delta`, TextStream); a model that only implements AgentModel
 * keeps working, its reply shown whole when it is stored.
 */
interface StreamingAgentModel extends AgentModel
{
    /**
     * One assistant turn, as complete(), calling `$onText` with each piece of text as the provider
     * sends it (the pieces add up to the returned `text`).
     *
     * @param list<array<string, mixed>> $messages provider-neutral history
     * @param list<array<string, mixed>> $tools
     * @param callable(string): void $onText
     * @return array{text: string, tool_calls: list<array{id: string, name: string, input: array<string, mixed>}>}
     */
    public function stream(string $system, array $messages, array $tools, callable $onText): array;
}
