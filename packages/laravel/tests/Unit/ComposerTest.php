<?php

namespace Toolmark\Laravel\Tests\Unit;

use PHPUnit\Framework\TestCase;

/** composer.json says what the code is: PSR-4 paths, the discovered provider and facade, the illuminate/* packages it uses. */
final class ComposerTest extends TestCase
{
    private static function composer(): array
    {
        return json_decode((string) file_get_contents(__DIR__.'/../../composer.json'), true, 512, JSON_THROW_ON_ERROR);
    }

    /** @return list<string> every PHP file under src/, relative to it */
    private static function sources(): array
    {
        $root = __DIR__.'/../../src/';
        $files = [];
        foreach (new \RecursiveIteratorIterator(new \RecursiveDirectoryIterator($root, \FilesystemIterator::SKIP_DOTS)) as $file) {
            if ($file->getExtension() === 'php') {
                $files[] = substr($file->getPathname(), strlen($root));
            }
        }
        sort($files);

        return $files;
    }

    public function test_every_class_is_where_psr4_looks_for_it(): void
    {
        $this->assertSame(['Toolmark\\Laravel\\' => 'src/'], self::composer()['autoload']['psr-4']);
        foreach (self::sources() as $file) {
            $class = 'Toolmark\\Laravel\\'.str_replace('/', '\\', substr($file, 0, -4));
            $this->assertTrue(class_exists($class) || interface_exists($class), "{$file} declares {$class}");
        }
    }

    public function test_package_discovery_names_the_provider_and_the_facade(): void
    {
        $laravel = self::composer()['extra']['laravel'];
        $this->assertSame(['Toolmark\\Laravel\\ToolmarkServiceProvider'], $laravel['providers']);
        $this->assertSame(['Toolmark' => 'Toolmark\\Laravel\\Facades\\Toolmark'], $laravel['aliases']);
        foreach ([...$laravel['providers'], ...array_values($laravel['aliases'])] as $class) {
            $this->assertTrue(class_exists($class), $class);
        }
    }

    public function test_every_illuminate_component_the_code_uses_is_required(): void
    {
        $required = array_keys(self::composer()['require']);
        $used = [];
        foreach (self::sources() as $file) {
            preg_match_all('/^use Illuminate\\\\(\w+)\\\\/m', (string) file_get_contents(__DIR__.'/../../src/'.$file), $m);
            foreach ($m[1] as $component) {
                // Foundation ships only in laravel/framework, which every Laravel app has (it replaces illuminate/*).
                if ($component !== 'Foundation') {
                    $used['illuminate/'.strtolower($component)] = true;
                }
            }
        }
        $this->assertSame([], array_values(array_diff(array_keys($used), $required)));
        $this->assertSame([], array_values(array_filter(self::composer()['require'], fn (string $v, string $name): bool => $name !== 'php' && $v !== '^8.83|^9.0|^10.0|^11.0|^12.0', ARRAY_FILTER_USE_BOTH)));
    }
}
